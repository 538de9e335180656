"""The shell commands: each provider's standalone preview, ``context-providers preview``,
and what every command shares (help, argument errors, closed pipes: ``console``;
scratch git copies of a folder that is in no repository: ``scratch``)."""
