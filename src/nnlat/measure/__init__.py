"""How a latency is measured, independent of who asked: backends, protocol, statistics."""
