"""The kernel's side: launching plugins, the callback server, the chain, agent.hcl, preview."""
