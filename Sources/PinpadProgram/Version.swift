/// The version both programs report (`--version`, `-V`) and the socket's `hello` carries.
public let pinpaddVersion = "0.1.0"
