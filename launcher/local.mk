# launcher/: user commands.
