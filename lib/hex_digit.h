/*
 * hex_digit.h: the value of one hex digit, shared by the parsers that read hex (grid-mapfile
 * \xHH escapes, relay ids).
 */
#ifndef QCG_HEX_DIGIT_H
#define QCG_HEX_DIGIT_H

/* The value of hex digit c, or -1 for anything else (the NUL included). */
static inline int
hex_digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
