// Pins the Gateway API CRDs installed on the embedded node (scripts/build-gateway.sh copies its standard
// channel). A module of its own: requiring it beside Traefik would move Traefik's own gateway-api client.
module berth.local/gateway-api

go 1.25.0

require sigs.k8s.io/gateway-api v1.6.3
