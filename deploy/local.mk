# deploy/: admin scripts.
