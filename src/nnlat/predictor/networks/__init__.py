"""Graph networks, one per module: NNLP (:mod:`nnlp`), the BRP-NAS GCN (:mod:`brpnas`) and
the kernel-level GraphSAGE of NNLQP's "TPU" baseline (:mod:`kernel_sage`). Each is
registered by name in :data:`nnlat.predictor.predictor.NETWORKS`."""
