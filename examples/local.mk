# examples/: MPI programs with their job descriptions in the three formats (native XML,
# QCG-Simple, JSDL), built with Open MPI's flags and installed where the descriptions point;
# and the two demos README.md names.
examplesdir = $(pkglibexecdir)/examples
examples_PROGRAMS = examples/hello/hello examples/all-pairs/all-pairs examples/pi/pi
examples_hello_hello_SOURCES = examples/hello/hello.c
examples_hello_hello_CPPFLAGS = $(AM_CPPFLAGS) $(OMPI_CFLAGS)
examples_hello_hello_LDADD = $(OMPI_LIBS)
examples_all_pairs_all_pairs_SOURCES = examples/all-pairs/all_pairs.c
examples_all_pairs_all_pairs_CPPFLAGS = $(AM_CPPFLAGS) $(OMPI_CFLAGS)
examples_all_pairs_all_pairs_LDADD = $(OMPI_LIBS)
examples_pi_pi_SOURCES = examples/pi/pi.c
examples_pi_pi_CPPFLAGS = $(AM_CPPFLAGS) $(OMPI_CFLAGS)
examples_pi_pi_LDADD = $(OMPI_LIBS) -lm

EXTRA_DIST += examples/hello/hello.xml examples/hello/hello.qcg examples/hello/hello.jsdl \
	examples/all-pairs/all-pairs.xml examples/all-pairs/all-pairs.qcg \
	examples/all-pairs/all-pairs.jsdl examples/pi/pi.xml examples/pi/pi.qcg examples/pi/pi.jsdl \
	examples/demo-broker.sh examples/demo-grid.sh
# The same examples with the program staged from the submitting host (issue 12).
EXTRA_DIST += examples/hello/hello-staged.xml examples/hello/hello-staged.qcg \
	examples/hello/hello-staged.jsdl examples/all-pairs/all-pairs-staged.xml \
	examples/all-pairs/all-pairs-staged.qcg examples/all-pairs/all-pairs-staged.jsdl \
	examples/pi/pi-staged.xml examples/pi/pi-staged.qcg examples/pi/pi-staged.jsdl
