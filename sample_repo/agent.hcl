# Context providers for this repository (PluggableHarness agent.hcl).
required_providers {
  repo_conventions = {
    source  = "github.com/context-providers/context-providers/repo-conventions"
    version = "~> 0.1"
  }
  git_status = {
    source  = "github.com/context-providers/context-providers/git-status"
    version = "~> 0.1"
  }
  file_tree = {
    source  = "github.com/context-providers/context-providers/file-tree"
    version = "~> 0.1"
  }
  scoped_docs = {
    source  = "github.com/context-providers/context-providers/scoped-docs"
    version = "~> 0.1"
  }
}

# The kernel runs the providers in the order of the provider blocks below.

provider "repo_conventions" {
  token_budget = 3000
}

provider "git_status" {
  token_budget   = 600
  recent_commits = 5
}

provider "file_tree" {
  token_budget = 800
  exclude      = ["*.lock"]
}

provider "scoped_docs" {
  token_budget = 1500
}
