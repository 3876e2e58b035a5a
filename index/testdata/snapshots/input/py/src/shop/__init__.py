"""Shop package."""

VERSION = "2.0.1"
