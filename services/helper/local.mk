# services/helper: rules arrive with its issue.
