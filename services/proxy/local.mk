# services/proxy: rules arrive with its issue.
