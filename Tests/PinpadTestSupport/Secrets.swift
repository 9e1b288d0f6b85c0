/// Whether `text` shows `secret` (a code, a card number or a piece of one) anywhere but
/// inside a random token: a run of 16 or more ASCII letters and digits with a letter in
/// it, such as an attempt id, a hash or a key. A random 32-hex attempt id holds a given
/// 4-digit code about once in 2 000 ids, often enough to fail a secrecy test now and then
/// (it failed CI once, on "7de01ace05e144711234…"); a leaked code is never written with
/// letters stuck to it, so a leak still shows.
///
/// A loopback broker's port (`mqtt://127.0.0.1:51357`, in every bridge's log) is random
/// too, and held a test's code once: the digits after `127.0.0.1:` are left out.
public func shows(_ secret: some StringProtocol, in text: String) -> Bool {
  let text = withoutLoopbackPorts(text)
  var visible = ""
  var run = ""
  func flush() {
    let random = run.count >= 16 && run.contains { $0.isLetter }
    visible += random ? " " : run
    run = ""
  }
  for character in text {
    if character.isASCII, character.isLetter || character.isNumber {
      run.append(character)
    } else {
      flush()
      visible.append(character)
    }
  }
  flush()
  return visible.contains(secret)
}

/// `text` with the port after each `127.0.0.1:` taken out.
func withoutLoopbackPorts(_ text: String) -> String {
  let host = "127.0.0.1:"
  var out = ""
  var rest = Substring(text)
  while let found = rest.range(of: host) {
    out += rest[..<found.upperBound]
    rest = rest[found.upperBound...].drop { $0.isASCII && $0.isNumber }
    out += "PORT"
  }
  return out + rest
}
