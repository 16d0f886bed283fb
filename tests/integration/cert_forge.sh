# cert_forge.sh: sourced by integration tests after grid_fixture.sh. Certificates deploy/qcg-ca
# will not make (it refuses such names and has no such options), made with the openssl tool:
#
#   forge_from_ca NAME SUBJECT              # signed by the fixture's CA, any -subj subject
#   foreign_ca DIR SUBJECT [POLICY-PATTERN] # a second CA, installed in the fixture's CA
#                                           # directory with a CRL and (if given) a signing policy
#   forge_from_foreign DIR NAME SUBJECT     # a user certificate of that CA
#   forge_proxy NAME SIGNER LANGUAGE        # an RFC 3820 proxy of SIGNER ($D/SIGNER-cert.pem and
#                                           # key) with that policy language (OID or short name)
# Each writes $FIXTURE_DIR/NAME-cert.pem and NAME-key.pem (0600), as query_as expects.

# Leaf extensions as qcg-ca user writes them.
forge_leaf_ext() {
	printf '%s\n' "basicConstraints = critical, CA:FALSE" \
		"keyUsage = critical, digitalSignature, keyEncipherment" \
		"extendedKeyUsage = clientAuth" >"$FIXTURE_DIR/leaf-ext.cnf"
}

forge_request() { # NAME SUBJECT
	openssl req -new -newkey rsa:2048 -nodes -keyout "$FIXTURE_DIR/$1-key.pem" -utf8 \
		-subj "$2" -out "$FIXTURE_DIR/$1.csr" >>"$FIXTURE_DIR/ca.log" 2>&1 ||
		{ echo "openssl req for $1 failed:"; cat "$FIXTURE_DIR/ca.log"; exit 99; }
	chmod 600 "$FIXTURE_DIR/$1-key.pem"
}

forge_from_ca() {
	forge_request "$1" "$2"
	forge_leaf_ext
	# The CA's own configuration, with a name policy that lets any subject through (qcg-ca's
	# wants a CN, which a forged name may lack).
	cat "$FIXTURE_DIR/ca/openssl.cnf" - >"$FIXTURE_DIR/forge-ca.cnf" <<-'CNF'
	[ policy_any ]
	organizationName = optional
	CNF
	QCG_CA_DIR="$FIXTURE_DIR/ca" openssl ca -config "$FIXTURE_DIR/forge-ca.cnf" -batch \
		-policy policy_any \
		-notext -preserveDN -utf8 -days 30 -extfile "$FIXTURE_DIR/leaf-ext.cnf" \
		-in "$FIXTURE_DIR/$1.csr" -out "$FIXTURE_DIR/$1-cert.pem" >>"$FIXTURE_DIR/ca.log" 2>&1 ||
		{ echo "openssl ca for $1 failed:"; cat "$FIXTURE_DIR/ca.log"; exit 99; }
}

foreign_ca() {
	local dir=$1 subject=$2 pattern=${3:-} hash
	mkdir -p "$dir"
	: >"$dir/index.txt"
	echo 01 >"$dir/crlnumber"
	printf '%s\n' "[ ca ]" "default_ca = f" "[ f ]" "database = $dir/index.txt" \
		"crlnumber = $dir/crlnumber" "default_md = sha256" >"$dir/ca.cnf"
	{ openssl req -x509 -newkey rsa:2048 -nodes -keyout "$dir/key.pem" -out "$dir/ca.pem" \
		-days 30 -subj "$subject" -addext "basicConstraints=critical,CA:TRUE" \
		-addext "keyUsage=critical,keyCertSign,cRLSign" &&
		openssl ca -config "$dir/ca.cnf" -gencrl -cert "$dir/ca.pem" -keyfile "$dir/key.pem" \
			-crldays 30 -out "$dir/crl.pem"; } >>"$FIXTURE_DIR/ca.log" 2>&1 ||
		{ echo "making the CA $subject failed:"; cat "$FIXTURE_DIR/ca.log"; exit 99; }
	hash=$(openssl x509 -in "$dir/ca.pem" -noout -hash)
	cp "$dir/ca.pem" "$FIXTURE_DIR/ca/certificates/$hash.0"
	cp "$dir/crl.pem" "$FIXTURE_DIR/ca/certificates/$hash.r0"
	if [ -n "$pattern" ]; then
		printf '%s\n' "access_id_CA X509 '$subject'" "pos_rights globus CA:sign" \
			"cond_subjects globus '\"$pattern\"'" >"$FIXTURE_DIR/ca/certificates/$hash.signing_policy"
	fi
}

forge_from_foreign() {
	local dir=$1 name=$2
	forge_request "$name" "$3"
	forge_leaf_ext
	openssl x509 -req -in "$FIXTURE_DIR/$name.csr" -CA "$dir/ca.pem" -CAkey "$dir/key.pem" \
		-set_serial "$((RANDOM + 1000))" -days 30 -extfile "$FIXTURE_DIR/leaf-ext.cnf" \
		-out "$FIXTURE_DIR/$name-cert.pem" >>"$FIXTURE_DIR/ca.log" 2>&1 ||
		{ echo "signing $name failed:"; cat "$FIXTURE_DIR/ca.log"; exit 99; }
}

forge_proxy() {
	local name=$1 signer=$2 language=$3 serial=$((RANDOM * 7 + 100))
	local subject
	subject=$(openssl x509 -in "$FIXTURE_DIR/$signer-cert.pem" -noout -subject -nameopt compat |
		sed 's/^subject=//')
	forge_request "$name" "$subject/CN=$serial"
	printf '%s\n' "keyUsage = critical, digitalSignature, keyEncipherment" \
		"proxyCertInfo = critical, language:$language" >"$FIXTURE_DIR/proxy-ext.cnf"
	openssl x509 -req -in "$FIXTURE_DIR/$name.csr" -CA "$FIXTURE_DIR/$signer-cert.pem" \
		-CAkey "$FIXTURE_DIR/$signer-key.pem" -set_serial "$serial" -days 1 \
		-extfile "$FIXTURE_DIR/proxy-ext.cnf" -out "$FIXTURE_DIR/$name.pem" \
		>>"$FIXTURE_DIR/ca.log" 2>&1 || { echo "proxy $name failed:"; cat "$FIXTURE_DIR/ca.log"; exit 99; }
	# Grid convention: proxy certificate, its key, then the signer's certificate.
	cat "$FIXTURE_DIR/$name.pem" "$FIXTURE_DIR/$name-key.pem" "$FIXTURE_DIR/$signer-cert.pem" \
		>"$FIXTURE_DIR/$name-cert.pem"
	chmod 600 "$FIXTURE_DIR/$name-cert.pem"
	ln -sf "$name-cert.pem" "$FIXTURE_DIR/$name-key.pem" # the key is in the proxy file
}
