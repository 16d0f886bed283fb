# services/broker/: qcg-broker.
