"""Request and answer plumbing shared by every endpoint: authentication, parameters, JSON bodies, errors."""
