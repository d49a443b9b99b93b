"""The pytest plugin other projects get with the package."""
