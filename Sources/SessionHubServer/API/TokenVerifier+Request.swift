import HubDomain
import WebSocketTransport

extension TokenVerifier {
    /// The claims of the bearer token an HTTP request carries, verified at `clock`'s time;
    /// 401 in the API's error shape without one or with one that does not verify.
    func authenticate(_ request: HTTPRequest, clock: any HubClock) throws(APIError) -> TokenClaims {
        guard let token = request.bearerToken else {
            throw APIError(.unauthorized, AuthError.missing.code, AuthError.missing.description)
        }
        do {
            return try verify(token, now: Int(clock.now() / 1000))
        } catch {
            throw APIError(.unauthorized, error.code, error.description)
        }
    }
}
