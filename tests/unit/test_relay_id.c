/*
 * test_relay_id.c: relay ids as text (lib/relay_id.h), the one implementation the broker (which
 * formats them into decisions), the proxy and the helpers (which parse them) share.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "relay_id.h"

static void
format_and_parse_round_trip_every_nibble(void)
{
	uint8_t id[QCG_RELAY_ID_BYTES], back[QCG_RELAY_ID_BYTES];
	char text[RELAY_ID_HEX_LEN + 1];

	for (int i = 0; i < QCG_RELAY_ID_BYTES; i++)
		id[i] = (uint8_t)(0x0f + i * 0x11); /* 0f 20 31 ... f4: every nibble value */
	memset(text, 'x', sizeof(text));
	relay_id_format(id, text);
	CHECK_STR_EQ(text, "0f2031425364758697a8b9cadbecfd0e");
	CHECK_INT_EQ(relay_id_parse(text, back), 0);
	CHECK(memcmp(id, back, sizeof(id)) == 0);
	/* Upper case parses to the same bytes. */
	memset(back, 0, sizeof(back));
	CHECK_INT_EQ(relay_id_parse("0F2031425364758697A8B9CADBECFD0E", back), 0);
	CHECK(memcmp(id, back, sizeof(id)) == 0);
}

static void
parse_rejects_wrong_length_and_non_hex_and_leaves_the_buffer_alone(void)
{
	static const char *const bad[] = {
		"",
		"0f2031425364758697a8b9cadbecfd0",   /* 31 digits */
		"0f2031425364758697a8b9cadbecfd0e0", /* 33 digits */
		"0f2031425364758697a8b9cadbecfd0g",  /* non-hex last */
		"g f2031425364758697a8b9cadbecfd0e", /* non-hex first */
		"0f2031425364758697a8b9cadbecfd0 ",  /* trailing space in place of a digit */
		" 0f2031425364758697a8b9cadbecfd0e", /* leading space */
		"0x2031425364758697a8b9cadbecfd0e",  /* prefix */
		"0f203142-5364-7586-97a8-b9cadbecfd0e",
	};
	uint8_t id[QCG_RELAY_ID_BYTES], before[QCG_RELAY_ID_BYTES];

	memset(id, 0xab, sizeof(id));
	memcpy(before, id, sizeof(id));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (relay_id_parse(bad[i], id) != -1) {
			fprintf(stderr, "accepted bad relay id \"%s\"\n", bad[i]);
			CHECK(!"bad relay id accepted");
		}
	}
	CHECK_INT_EQ(relay_id_parse(NULL, id), -1);
	CHECK(memcmp(id, before, sizeof(id)) == 0);
}

static void
struct_form_parses_like_the_byte_form(void)
{
	static const struct relay_id sample = { { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
		0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff } };
	char hex[RELAY_ID_HEX_LEN + 1];
	struct relay_id id;

	relay_id_format(sample.bytes, hex);
	CHECK_STR_EQ(hex, "00112233445566778899aabbccddeeff");
	CHECK_INT_EQ(relay_id_parse_hex("00112233445566778899AABBCCDDEEFF", &id), 0);
	CHECK(memcmp(id.bytes, sample.bytes, sizeof(id.bytes)) == 0);
	CHECK_INT_EQ(relay_id_parse_hex("00112233445566778899aabbccddeef", &id), -1);
	CHECK_INT_EQ(relay_id_parse_hex("0011223344556677889gaabbccddeeff", &id), -1);
}

int
main(void)
{
	RUN(format_and_parse_round_trip_every_nibble);
	RUN(parse_rejects_wrong_length_and_non_hex_and_leaves_the_buffer_alone);
	RUN(struct_form_parses_like_the_byte_form);
	return check_exit();
}
