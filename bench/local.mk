# bench: rules arrive with its issue.
