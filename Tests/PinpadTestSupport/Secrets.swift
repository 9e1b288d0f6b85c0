/// Whether `text` shows `secret` (a code, a card number or a piece of one) anywhere but
/// inside a random token: a run of 16 or more ASCII letters and digits with a letter in
/// it, such as an attempt id, a hash or a key. A random 32-hex attempt id holds a given
/// 4-digit code about once in 2 000 ids, often enough to fail a secrecy test now and then
/// (it failed CI once, on "7de01ace05e144711234…"); a leaked code is never written with
/// letters stuck to it, so a leak still shows.
public func shows(_ secret: some StringProtocol, in text: String) -> Bool {
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
