# services/broker/: qcg-broker.
include services/broker/decision.mk
