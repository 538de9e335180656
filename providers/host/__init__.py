"""The PluggableHarness kernel's side, as our reference host plays it: launching plugins
over go-plugin, the callback server (CountTokens, Log), the chain and its checks,
``agent.hcl``, and the preview session. No shell command lives here (``cli``)."""
