"""COBRA's two generated datasets, as zoo families (not in the registry: they are no
classifier families, and a campaign hands their :class:`~nnlat.zoo.family.ZooModel` to the
torch backend directly).

* :mod:`nnlat.zoo.cobra.layers`: random single layers of the paper's eight types (its
  Table 4), each one runnable snippet;
* :mod:`nnlat.zoo.cobra.networks`: random ResNet-like networks (its Appendix A.2, the
  :mod:`nnlat.zoo.randdag` sampler), each written out as a standalone PyTorch source file
  and built from that file; ``SOURCES`` times any one-input module given as source.
"""

from nnlat.zoo.cobra.layers import LAYERS, SNIPPETS, layer_snippet
from nnlat.zoo.cobra.networks import NETWORKS, SOURCES, network_source

__all__ = ["LAYERS", "NETWORKS", "SNIPPETS", "SOURCES", "layer_snippet", "network_source"]
