"""PerfSAGE's EdgeDLPerf design spaces (its §3 and Table 2), exported to fully int8 TFLite.

One module per space — :mod:`~nnlat.zoo.edge.cnn_cifar10`, :mod:`~nnlat.zoo.edge.cnn_imagenet`,
:mod:`~nnlat.zoo.edge.cnn_kws`, :mod:`~nnlat.zoo.edge.vit_cifar100` — each with a frozen
configuration dataclass, a seeded ``sample(rng)``, a Keras ``build(config)`` and ``FAMILY``,
registered in the zoo with source format ``"tflite"``. :mod:`~nnlat.zoo.edge.tflite_export`
converts a Keras model to int8 TFLite by post-training quantisation. Nothing here imports
TensorFlow until a model is built.
"""
