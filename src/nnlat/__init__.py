"""nnlat: query and predict the latency of neural networks on real hardware."""
