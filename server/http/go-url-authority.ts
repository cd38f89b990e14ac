/**
 * Whether Go's url.ParseRequestURI reads the authority of a request target (an absolute URL's
 * `user@host:port`, a CONNECT's `host:port`): its parseAuthority and parseHost. Go's server
 * answers a target it cannot read with a plain 400 before any handler; Node's parser lets
 * most of these through.
 */

/** The bytes a host may hold unescaped (url.shouldEscape in host mode), beyond letters and digits. */
const HOST_BYTE = /[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"]/;
/** validUserinfo's runes. */
const USERINFO = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;
const HEX = /^[0-9A-Fa-f]{2}$/;

/** A `:port` after the host, or nothing: digits only. */
function validOptionalPort(port: string): boolean {
  return port === '' || /^:\d*$/.test(port);
}

/** unescape in host mode: `%XX` escapes only of bytes past ASCII (or `%25`), other bytes as HOST_BYTE allows. */
function validHostText(host: string): boolean {
  for (let i = 0; i < host.length; i++) {
    const code = host.charCodeAt(i);
    if (code === 0x25) {
      const escape = host.slice(i + 1, i + 3);
      if (!HEX.test(escape) || (parseInt(escape[0], 16) < 8 && escape !== '25')) return false;
      i += 2;
    } else if (code < 0x80 && !HOST_BYTE.test(host[i])) {
      return false;
    }
  }
  return true;
}

function validHost(host: string): boolean {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0 || !validOptionalPort(host.slice(close + 1))) return false;
  } else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0 && !validOptionalPort(host.slice(colon))) return false;
  }
  return validHostText(host);
}

/** Escapes in user information must be whole (`%` and two hex digits). */
function validUserinfo(userinfo: string): boolean {
  return USERINFO.test(userinfo) && !/%(?![0-9A-Fa-f]{2})/.test(userinfo);
}

export function isValidGoAuthority(authority: string): boolean {
  const at = authority.lastIndexOf('@');
  if (at < 0) return validHost(authority);
  return validUserinfo(authority.slice(0, at)) && validHost(authority.slice(at + 1));
}
