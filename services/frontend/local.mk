# services/frontend: rules arrive with its issue.
