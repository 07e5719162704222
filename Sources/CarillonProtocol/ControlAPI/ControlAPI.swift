/// The Chime SDK Meetings REST API's JSON shapes, with the exact PascalCase keys of the model (`control-api.md` §4-5).
///
/// Every member is optional so that a request can be decoded whatever it holds and then validated with a clear
/// message; responses fill in what the model documents.
public enum ControlAPI {}
