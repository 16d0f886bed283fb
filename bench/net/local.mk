# bench/net: libqcgnet methods, setup, trunking and startup on the testbed (issue 5).
