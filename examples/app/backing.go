// Checks of the backing services Berth gives the app, through the connection settings it receives:
// GET /db runs `select 40 + 2` on $DATABASE_URI (Postgres' wire protocol with SCRAM-SHA-256, MD5 or
// plain password authentication), GET /cache sends AUTH and PING to $REDIS_URI. The standard library
// only, so the image stays one static binary.
package main

import (
	"bufio"
	"crypto/hmac"
	"crypto/md5"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"time"
)

const backingTimeout = 3 * time.Second

// dial parses a connection URI and connects to its host (defaultPort when it names none), with the
// whole exchange bounded by backingTimeout.
func dial(uri, defaultPort string) (*url.URL, net.Conn, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return nil, nil, err
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), defaultPort)
	}
	conn, err := net.DialTimeout("tcp", host, backingTimeout)
	if err != nil {
		return nil, nil, err
	}
	if err := conn.SetDeadline(time.Now().Add(backingTimeout)); err != nil {
		conn.Close()
		return nil, nil, err
	}
	return u, conn, nil
}

// checkCache authenticates to Redis with the URI's password and answers what PING answers.
func checkCache(uri string) (string, error) {
	u, conn, err := dial(uri, "6379")
	if err != nil {
		return "", err
	}
	defer conn.Close()
	reader := bufio.NewReader(conn)
	command := func(args ...string) (string, error) {
		var b strings.Builder
		fmt.Fprintf(&b, "*%d\r\n", len(args))
		for _, arg := range args {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(arg), arg)
		}
		if _, err := io.WriteString(conn, b.String()); err != nil {
			return "", err
		}
		line, err := reader.ReadString('\n')
		if err != nil {
			return "", err
		}
		line = strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(line, "-") {
			return "", errors.New(line[1:])
		}
		return strings.TrimPrefix(line, "+"), nil
	}
	if password, ok := u.User.Password(); ok {
		if _, err := command("AUTH", password); err != nil {
			return "", fmt.Errorf("AUTH: %w", err)
		}
	}
	return command("PING")
}

// postgresConn speaks just enough of the frontend/backend protocol for one simple query.
type postgresConn struct {
	conn   net.Conn
	reader *bufio.Reader
}

func (p *postgresConn) send(kind byte, body []byte) error {
	message := make([]byte, 0, len(body)+5)
	if kind != 0 {
		message = append(message, kind)
	}
	message = binary.BigEndian.AppendUint32(message, uint32(len(body)+4))
	_, err := p.conn.Write(append(message, body...))
	return err
}

func (p *postgresConn) receive() (byte, []byte, error) {
	head := make([]byte, 5)
	if _, err := io.ReadFull(p.reader, head); err != nil {
		return 0, nil, err
	}
	body := make([]byte, binary.BigEndian.Uint32(head[1:])-4)
	if _, err := io.ReadFull(p.reader, body); err != nil {
		return 0, nil, err
	}
	if head[0] == 'E' {
		return 0, nil, fmt.Errorf("postgres: %s", errorMessage(body))
	}
	return head[0], body, nil
}

// errorMessage is the M (message) field of an ErrorResponse.
func errorMessage(body []byte) string {
	for _, field := range strings.Split(string(body), "\x00") {
		if strings.HasPrefix(field, "M") {
			return field[1:]
		}
	}
	return "error"
}

func cstrings(values ...string) []byte {
	return []byte(strings.Join(values, "\x00") + "\x00")
}

// checkDatabase logs in with the URI's user and password and returns the answer to `select 40 + 2`.
func checkDatabase(uri string) (string, error) {
	u, conn, err := dial(uri, "5432")
	if err != nil {
		return "", err
	}
	defer conn.Close()
	p := &postgresConn{conn: conn, reader: bufio.NewReader(conn)}
	user := u.User.Username()
	password, _ := u.User.Password()
	database := strings.TrimPrefix(u.Path, "/")
	startup := binary.BigEndian.AppendUint32(nil, 196608) // protocol 3.0
	startup = append(startup, cstrings("user", user, "database", database, "")...)
	if err := p.send(0, startup); err != nil {
		return "", err
	}
	if err := p.authenticate(user, password); err != nil {
		return "", err
	}
	if err := p.send('Q', cstrings("select 40 + 2")); err != nil {
		return "", err
	}
	answer := ""
	for {
		kind, body, err := p.receive()
		if err != nil {
			return "", err
		}
		switch kind {
		case 'D': // DataRow: column count, then length and bytes of each column
			if len(body) >= 6 {
				length := int(int32(binary.BigEndian.Uint32(body[2:6])))
				if length >= 0 && len(body) >= 6+length {
					answer = string(body[6 : 6+length])
				}
			}
		case 'Z':
			return answer, nil
		}
	}
}

func (p *postgresConn) authenticate(user, password string) error {
	var scram *scramClient
	for {
		kind, body, err := p.receive()
		if err != nil {
			return err
		}
		if kind == 'Z' {
			return nil
		}
		if kind != 'R' || len(body) < 4 {
			continue
		}
		switch code, data := binary.BigEndian.Uint32(body), body[4:]; code {
		case 0: // AuthenticationOk
		case 3: // cleartext password
			err = p.send('p', cstrings(password))
		case 5: // MD5: md5(md5(password + user) + salt)
			inner := md5.Sum([]byte(password + user))
			outer := md5.Sum(append([]byte(hex.EncodeToString(inner[:])), data[:4]...))
			err = p.send('p', cstrings("md5"+hex.EncodeToString(outer[:])))
		case 10: // SASL: SCRAM-SHA-256
			scram = newScramClient(password)
			first := scram.clientFirst()
			response := append(cstrings("SCRAM-SHA-256"), binary.BigEndian.AppendUint32(nil, uint32(len(first)))...)
			err = p.send('p', append(response, first...))
		case 11: // SASL continue
			if scram == nil {
				return errors.New("postgres: SASL continue before SASL start")
			}
			final, ferr := scram.clientFinal(string(data))
			if ferr != nil {
				return ferr
			}
			err = p.send('p', []byte(final))
		case 12: // SASL final: the server's signature; the session is what proves it here
		default:
			return fmt.Errorf("postgres: authentication method %d is not supported", code)
		}
		if err != nil {
			return err
		}
	}
}

// scramClient is the client side of SCRAM-SHA-256 (RFC 5802, RFC 7677) without channel binding.
type scramClient struct {
	password, nonce, clientFirstBare string
}

func newScramClient(password string) *scramClient {
	raw := make([]byte, 18)
	_, _ = rand.Read(raw)
	return &scramClient{password: password, nonce: base64.RawStdEncoding.EncodeToString(raw)}
}

func (s *scramClient) clientFirst() string {
	// Postgres takes the user from the startup message: the SCRAM user name stays empty.
	s.clientFirstBare = "n=,r=" + s.nonce
	return "n,," + s.clientFirstBare
}

func (s *scramClient) clientFinal(serverFirst string) (string, error) {
	var nonce, salt string
	iterations := 0
	for _, attribute := range strings.Split(serverFirst, ",") {
		switch {
		case strings.HasPrefix(attribute, "r="):
			nonce = attribute[2:]
		case strings.HasPrefix(attribute, "s="):
			salt = attribute[2:]
		case strings.HasPrefix(attribute, "i="):
			fmt.Sscanf(attribute[2:], "%d", &iterations)
		}
	}
	saltBytes, err := base64.StdEncoding.DecodeString(salt)
	if err != nil || !strings.HasPrefix(nonce, s.nonce) || iterations <= 0 {
		return "", errors.New("postgres: malformed SCRAM server-first message")
	}
	salted, err := pbkdf2.Key(sha256.New, s.password, saltBytes, iterations, sha256.Size)
	if err != nil {
		return "", err
	}
	mac := func(key []byte, message string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(message))
		return h.Sum(nil)
	}
	clientKey := mac(salted, "Client Key")
	storedKey := sha256.Sum256(clientKey)
	withoutProof := "c=biws,r=" + nonce
	signature := mac(storedKey[:], s.clientFirstBare+","+serverFirst+","+withoutProof)
	proof := make([]byte, len(clientKey))
	for i := range clientKey {
		proof[i] = clientKey[i] ^ signature[i]
	}
	return withoutProof + ",p=" + base64.StdEncoding.EncodeToString(proof), nil
}
