"""Tests of fortap.table (a package so that module names never clash with other test folders)."""
