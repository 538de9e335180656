"""File-based context providers for the PluggableHarness kernel."""
