"""sampan.helix: molecular representation learning (ChemRL-style): RDKit featurization, datasets
and batching, scaffold splits, drawing, GNN models, pretraining, fine-tuning, prediction with a
fine-tuned model, metrics, and OGB's Evaluator and dataset folders.

The featurization, readers, splits and drawing are C++ over RDKit; without RDKit they raise a
RuntimeError saying so (``sampan.helix.native_available()`` tells), while models and metrics work.
"""
from . import metrics, models, split
from ._native import available as native_available
from .data import DataLoader, GraphBatch, MoleculeDataset, load_dataset, read_dataset
from .featurize import FEATURIZERS, feature_sizes, featurize, featurizer_spec, smiles2graph
from .draw import draw_grid_svg, draw_svg
from .evaluator import Evaluator
from .ogb_folder import load_ogb_folder
from .predict import predict
from .split import random_scaffold_split, random_split, scaffold_split, split_dataset
