"""Normalisation passes over an ONNX ModelProto, one idea per module.

Each pass is a function ``(model, options) -> None`` that edits the model in place;
:mod:`nnlat.graph.normalize` lists them in order. Passes see every sub-graph (If/Loop
bodies) unless their docstring says otherwise.
"""
