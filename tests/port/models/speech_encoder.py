"""A speech-style encoder: a Conv1d front end over filter banks, a BiLSTM and a classifier,
written for PyTorch (a test model of msport)."""
import torch
from torch import nn


class ConvFrontEnd(nn.Module):
    def __init__(self, n_mels, channels):
        super().__init__()
        self.conv = nn.Conv1d(n_mels, channels, kernel_size=5, padding=2)
        self.norm = nn.BatchNorm1d(channels)
        self.act = nn.ReLU()

    def forward(self, feats):
        # feats: (batch, time, n_mels) -> (batch, channels, time)
        return self.act(self.norm(self.conv(feats.transpose(1, 2))))


class SpeechEncoder(nn.Module):
    def __init__(self, n_mels=20, channels=16, hidden=12, num_classes=5):
        super().__init__()
        self.front = ConvFrontEnd(n_mels, channels)
        self.lstm = nn.LSTM(channels, hidden, num_layers=2, batch_first=True, bidirectional=True)
        self.norm = nn.LayerNorm(2 * hidden)
        self.classifier = nn.Linear(2 * hidden, num_classes)

    def forward(self, feats):
        x = self.front(feats).transpose(1, 2)
        x, _ = self.lstm(x)
        x = self.norm(x)
        pooled = x.mean(dim=1)
        with torch.no_grad():
            frames = x.size(1)
        return self.classifier(pooled), x[:, frames - 1].detach()
