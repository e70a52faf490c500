"""Hand-written PyTorch modules that are not ResNet-like, for issue 32's third check.

Written the way a developer would, each with one float input ``x``; none of them is in
COBRA's training data. ``scripts/cobra_handwritten.py`` predicts each from this file
(``nnlat.predict_code``) and times it (the ``cobra-source`` family).
"""

import torch
from torch import nn


class MobileNet(nn.Module):
    """MobileNet v1: a 3x3 stem, then depthwise-separable blocks, pooling, a classifier."""

    def __init__(self, width=1.0, classes=1000):
        super().__init__()

        def ch(c):
            return max(8, int(c * width))

        plan = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)]
        plan += [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
        layers = [nn.Conv2d(3, ch(32), 3, stride=2, padding=1, bias=False)]
        layers += [nn.BatchNorm2d(ch(32)), nn.ReLU()]
        c_in = ch(32)
        for c_out, stride in plan:
            layers += [
                nn.Conv2d(c_in, c_in, 3, stride=stride, padding=1, groups=c_in, bias=False),
                nn.BatchNorm2d(c_in),
                nn.ReLU(),
                nn.Conv2d(c_in, ch(c_out), 1, bias=False),
                nn.BatchNorm2d(ch(c_out)),
                nn.ReLU(),
            ]
            c_in = ch(c_out)
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(c_in, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.features(x)), 1))


class SelfAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        weights = torch.softmax(q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5, dim=-1)
        return self.out((weights @ v).transpose(1, 2).reshape(b, t, d))


class EncoderBlock(nn.Module):
    def __init__(self, dim, heads, hidden):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attention = SelfAttention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class TransformerEncoder(nn.Module):
    """A pre-norm transformer encoder over a sequence of embeddings, mean-pooled."""

    def __init__(self, dim=256, heads=4, depth=4, hidden=1024, classes=10):
        super().__init__()
        self.blocks = nn.Sequential(*[EncoderBlock(dim, heads, hidden) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        return self.head(self.norm(self.blocks(x)).mean(dim=1))


class LSTMTagger(nn.Module):
    """A bidirectional LSTM tagger over word vectors: one tag score vector per token."""

    def __init__(self, dim=128, hidden=256, layers=2, tags=17):
        super().__init__()
        self.lstm = nn.LSTM(dim, hidden, num_layers=layers, batch_first=True, bidirectional=True)
        self.tags = nn.Linear(2 * hidden, tags)

    def forward(self, x):
        out, _ = self.lstm(x)
        return torch.log_softmax(self.tags(out), dim=-1)
