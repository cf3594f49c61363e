/** proxy-from-env ships no types: the one function the client uses. */
declare module "proxy-from-env" {
  /** The proxy URL for a URL by http_proxy / https_proxy / all_proxy and no_proxy (either case), or "". */
  export function getProxyForUrl(url: string | URL): string;
}
