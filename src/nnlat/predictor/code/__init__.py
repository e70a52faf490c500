"""COBRA: latency from source code (tokenizer, snippet encoder, model, ``predict_code``)."""
