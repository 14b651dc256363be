"""sampan.helix: molecular representation learning (ChemRL-style): GNN models, pretraining,
fine-tuning and metrics."""
from . import metrics, models
