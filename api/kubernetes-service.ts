/**
 * The `kubernetes` Service in `default`, through which pods reach the API server: the server
 * creates it, keeps its Endpoints and EndpointSlice to the replicas' addresses, and lets those two
 * alone hold a loopback address (an advertise address may be one).
 */
export const KUBERNETES_SERVICE = { name: 'kubernetes', namespace: 'default' } as const;
