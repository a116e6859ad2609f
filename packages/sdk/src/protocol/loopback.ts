/**
 * Whether a URL's hostname names this machine: `localhost`, any address in 127.0.0.0/8, or `::1` (with
 * or without the brackets a URL puts around it). The one test for "loopback" wherever plain HTTP or an
 * unauthenticated origin is allowed only for local development.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === "localhost" || host === "::1" || host === "[::1]") return true;
  const octets = host.split(".");
  return (
    octets.length === 4 &&
    octets[0] === "127" &&
    octets.every((octet) => /^\d{1,3}$/.test(octet) && Number(octet) <= 255)
  );
}
