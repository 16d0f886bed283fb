/*
 * proxy_plan.c: what a broker "relay" event makes qcg-proxy do (proxy_broker_plan), without
 * sockets: expect the id, forward it to the chain's next proxy, or leave the event alone. The
 * events are built as gSOAP hands them over and converted as the proxy does
 * (soap_model_event_in), so a malformed field is caught on the same path.
 */
#include "config.h"

#include <string.h>

#include "soapH.h"
#include "check.h"
#include "proxy_broker.h"
#include "soap_model.h"

#define SELF "10.0.0.1:7300"
#define OTHER "10.0.0.2:7300"
#define ID "00112233445566778899aabbccddeeff"

static struct qcg__Proxy proxies[2];
static struct qcg__Decision decision;
static struct qcg__Event event;

/* An event of kind "relay" for method m through p0 (and p1 when not NULL). */
static struct qcg__Event *
relay_event(enum qcg__Method m, const char *p0, const char *p1)
{
	memset(proxies, 0, sizeof(proxies));
	memset(&decision, 0, sizeof(decision));
	memset(&event, 0, sizeof(event));
	proxies[0].endpoint = (char *)p0;
	proxies[1].endpoint = (char *)p1;
	decision.method = m;
	decision.relayId = ID;
	decision.proxy = proxies;
	decision.__sizeproxy = p1 ? 2 : 1;
	event.sequence = 1;
	event.kind = qcg__EventKind__relay;
	event.job = "job-1";
	event.decision = &decision;
	return &event;
}

/* What the proxy makes of ev: -1 when it does not convert, else proxy_broker_plan's answer. */
static int
plan(const char *self, const struct qcg__Event *ev, struct proxy_relay_plan *out, char *err,
    size_t errlen)
{
	static struct qcg_event model;
	if (soap_model_event_in(ev, &model, err, errlen) != 0)
		return -1;
	return proxy_broker_plan(self, &model, out, err, errlen);
}

static void
single_relay_is_expected(void)
{
	struct proxy_relay_plan p;
	char err[256];

	CHECK_INT_EQ(plan(SELF, relay_event(qcg__Method__relay, SELF, NULL), &p, err,
	    sizeof(err)), 0);
	CHECK(!p.forward);
	CHECK_INT_EQ(p.id.bytes[0], 0x00);
	CHECK_INT_EQ(p.id.bytes[15], 0xff);
}

static void
chain_first_proxy_forwards_to_the_second(void)
{
	struct proxy_relay_plan p;
	char err[256];

	CHECK_INT_EQ(plan(SELF, relay_event(qcg__Method__relay_chain, SELF, OTHER),
	    &p, err, sizeof(err)), 0);
	CHECK(p.forward);
	CHECK_STR_EQ(p.next_hop, OTHER);
}

static void
chain_second_proxy_expects(void)
{
	struct proxy_relay_plan p;
	char err[256];

	CHECK_INT_EQ(plan(SELF, relay_event(qcg__Method__relay_chain, OTHER, SELF),
	    &p, err, sizeof(err)), 0);
	CHECK(!p.forward);
}

static void
events_not_for_this_proxy_are_left_alone(void)
{
	struct proxy_relay_plan p;
	char err[256];
	struct qcg__Event *ev = relay_event(qcg__Method__relay, OTHER, NULL);

	CHECK_INT_EQ(plan(SELF, ev, &p, err, sizeof(err)), 1);
	CHECK(strstr(err, "does not name this proxy") != NULL);
	ev = relay_event(qcg__Method__relay, SELF, NULL);
	ev->kind = qcg__EventKind__connect;
	CHECK_INT_EQ(plan(SELF, ev, &p, err, sizeof(err)), 1);
}

static void
malformed_relay_events_are_refused_with_a_reason(void)
{
	struct proxy_relay_plan p;
	char err[256];
	struct qcg__Event *ev = relay_event(qcg__Method__relay, SELF, NULL);

	decision.relayId = "0011";
	CHECK_INT_EQ(plan(SELF, ev, &p, err, sizeof(err)), -1);
	CHECK(strstr(err, "relayId") != NULL);
	decision.relayId = NULL;
	CHECK_INT_EQ(plan(SELF, ev, &p, err, sizeof(err)), -1);
	ev = relay_event(qcg__Method__direct, SELF, NULL);
	CHECK_INT_EQ(plan(SELF, ev, &p, err, sizeof(err)), -1);
	ev = relay_event(qcg__Method__relay_chain, SELF, NULL); /* no second proxy */
	CHECK_INT_EQ(plan(SELF, ev, &p, err, sizeof(err)), -1);
	CHECK(strstr(err, "proxy[1]") != NULL);
	ev = relay_event(qcg__Method__relay, SELF, NULL);
	ev->decision = NULL;
	CHECK_INT_EQ(plan(SELF, ev, &p, err, sizeof(err)), -1);
	ev->kind = qcg__EventKind__job_ended;
	CHECK_INT_EQ(plan(SELF, ev, &p, err, sizeof(err)), 1);
}

int
main(void)
{
	RUN(single_relay_is_expected);
	RUN(chain_first_proxy_forwards_to_the_second);
	RUN(chain_second_proxy_expects);
	RUN(events_not_for_this_proxy_are_left_alone);
	RUN(malformed_relay_events_are_refused_with_a_reason);
	return check_exit();
}
