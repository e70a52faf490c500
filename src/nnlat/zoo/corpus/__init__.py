"""The real-architecture corpus: architectures people ship, as seeded zoo families.

Two kinds of family, each a module with a ``FAMILY`` (registered through
``nnlat.zoo.registry.CORPUS_FAMILY_MODULES``):

- model classes that the ``transformers`` package defines in code (encoders, decoders,
  vision and speech models), instantiated with random weights from sampled configurations
  at reduced sizes — nothing is downloaded (:mod:`~nnlat.zoo.corpus.hf`);
- generators of our own for deployed structures the libraries do not cover: detection
  necks and heads, OCR, audio front-ends, recurrent models inside ``If``/``Loop``,
  dynamic and QDQ int8, NHWC inputs.

Every family sets ``Family.export_onnx``: a configuration (plain JSON) regenerates the
exact ONNX file, at the opset it names (9–18), with seeded weights. Sizes are scaled down
so that one measurement takes under ~2 s on one core; each module says how.
"""
