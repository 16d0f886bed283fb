# bench/relay: proxy relay benchmark (issue 3).
