"""Datasets of measured latencies: campaigns that build them into the store."""

from nnlat.datasets.campaign import CAMPAIGN_SPEC, CampaignReport, build_dataset

__all__ = ["CAMPAIGN_SPEC", "CampaignReport", "build_dataset"]
