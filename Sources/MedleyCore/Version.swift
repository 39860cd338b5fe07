/// Medley's version, printed by `medley --version`.
public let medleyVersion = "0.1.0"
