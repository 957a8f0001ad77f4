"""fortap: ForTaP formula-driven table pretraining on a TUTA tree transformer, for real spreadsheets."""

__version__ = "0.1.0"
