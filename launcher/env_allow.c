/*
 * env_allow.c: the allow-list of env_allow.h.
 */
#include "config.h"

#include <string.h>

#include "env_allow.h"

/* Whether entry's name (up to '=' or its end) is exactly word. */
static bool
name_is(const char *entry, const char *word)
{
	size_t n = strlen(word);
	return strncmp(entry, word, n) == 0 && (entry[n] == '=' || entry[n] == '\0');
}

bool
env_allow_name(const char *entry)
{
	static const char *const prefixes[] = { "QCG_", "OMPI_", "PMIX_" };
	static const char *const exact[] = { "LD_PRELOAD", "PATH", "LD_LIBRARY_PATH" };
	/* Launcher-side files: meaningless on a node, and no business of the remote account. */
	static const char *const kept_home[] = { "QCG_RSH_MAP", "QCG_BROKER_URL" };

	if (entry == NULL || entry[0] == '=' || entry[0] == '\0')
		return false;
	for (size_t i = 0; i < sizeof(kept_home) / sizeof(kept_home[0]); i++)
		if (name_is(entry, kept_home[i]))
			return false;
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (name_is(entry, exact[i]))
			return true;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(entry, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

int
env_allow_collect(char *const *env, char **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
		if (!env_allow_name(env[i]) || strchr(env[i], '=') == NULL)
			continue;
		if (n == max)
			return -1;
		out[n++] = env[i];
	}
	return (int)n;
}
