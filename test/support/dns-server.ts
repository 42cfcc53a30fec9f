// An authoritative DNS server on loopback that answers TXT questions from a table the test writes: the
// tenant's own DNS (a provider's zone) that Berth asks for a custom host's proof of ownership. A real
// server (dns2, from npm) over a real UDP socket; names it has no TXT record for are NXDOMAIN, and names
// it was told to keep silent on get no answer at all (a zone its owner made slow on purpose).
import dns2 from 'dns2';

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, as --dns-servers takes it. */
  address: string;
  /** Publishes `values` as the TXT records of `name` (none: removes them). */
  setTxt(name: string, values: readonly string[]): void;
  /** Never answers questions for `name`. */
  silence(name: string): void;
  close(): Promise<void>;
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const records = new Map<string, readonly string[]>();
  const silent = new Set<string>();
  const { Packet } = dns2;
  const server = dns2.createUDPServer((request, send) => {
    const [question] = request.questions;
    if (question && silent.has(question.name.toLowerCase())) return;
    const values = question ? records.get(question.name.toLowerCase()) : undefined;
    if (!question || !values) {
      void send(Packet.createErrorResponseFromRequest(request, Packet.RCODE.NXDOMAIN));
      return;
    }
    const response = Packet.createResponseFromRequest(request);
    if (question.type === Packet.TYPE.TXT)
      for (const data of values)
        response.answers.push(Packet.createResourceFromQuestion(question, { type: Packet.TYPE.TXT, ttl: 1, data }));
    void send(response);
  });
  await server.listen(0, '127.0.0.1');
  const { port } = server.address();
  return {
    address: `127.0.0.1:${port}`,
    setTxt: (name, values) => (values.length > 0 ? records.set(name.toLowerCase(), values) : records.delete(name.toLowerCase())),
    silence: (name) => silent.add(name.toLowerCase()),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
