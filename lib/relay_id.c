/*
 * relay_id.c: relay ids as text (relay_id.h).
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "hex_digit.h"
#include "relay_id.h"

void
relay_id_format(const uint8_t id[QCG_RELAY_ID_BYTES], char buf[RELAY_ID_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < QCG_RELAY_ID_BYTES; i++) {
		buf[2 * i] = digits[id[i] >> 4];
		buf[2 * i + 1] = digits[id[i] & 0x0f];
	}
	buf[RELAY_ID_HEX_LEN] = '\0';
}

int
relay_id_parse(const char *text, uint8_t id[QCG_RELAY_ID_BYTES])
{
	uint8_t tmp[QCG_RELAY_ID_BYTES];

	if (text == NULL)
		return -1;
	/* Reading stops at the first non-hex byte, so a short string is never read past its NUL:
	 * the low digit is only looked at once the high one was a digit. */
	for (size_t i = 0; i < QCG_RELAY_ID_BYTES; i++) {
		int hi = hex_digit_value(text[2 * i]);
		if (hi < 0)
			return -1;
		int lo = hex_digit_value(text[2 * i + 1]);
		if (lo < 0)
			return -1;
		tmp[i] = (uint8_t)(hi << 4 | lo);
	}
	if (text[RELAY_ID_HEX_LEN] != '\0')
		return -1;
	memcpy(id, tmp, sizeof(tmp));
	return 0;
}
