"""VP8 through Carillon's SFU between aiortc attendees speaking Chime signaling: a publisher's camera is announced in
INDEX, a receiver subscribes to it on a recvonly m-line and decodes what the server forwards (aiortc's own VP8
decoder, so the server's RTP rewriting must keep the stream valid), in the publisher's colour."""
import asyncio

from aiortc.mediastreams import AudioStreamTrack

from chime_attendee import ChimeAttendee, ColorTrack


async def run(chime):
    meeting = chime.create_meeting(ClientRequestToken="aiortc-video", MediaRegion="us-east-1",
                                   ExternalMeetingId="aiortc-video")["Meeting"]
    people = [chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId=name)["Attendee"]
              for name in ("publisher", "viewer")]
    url = meeting["MediaPlacement"]["SignalingUrl"]
    publisher = ChimeAttendee(url, people[0]["JoinToken"], people[0]["AttendeeId"], AudioStreamTrack())
    viewer = ChimeAttendee(url, people[1]["JoinToken"], people[1]["AttendeeId"], AudioStreamTrack())
    try:
        await publisher.join()
        await viewer.join()
        # A green camera (Y 145, U 54, V 34 in BT.601).
        publisher_state = await publisher.subscribe(video_track=ColorTrack((145, 54, 34)))
        sources = await viewer.wait_for_sources(1)
        viewer_state = await viewer.subscribe(receive_stream_ids=[sources[0].stream_id])
        await asyncio.sleep(5)
        return publisher_state, viewer_state, sources, publisher, viewer
    finally:
        await viewer.leave()
        await publisher.leave()


def test_an_aiortc_camera_reaches_an_aiortc_viewer_through_the_sfu(chime):
    publisher_state, viewer_state, sources, publisher, viewer = asyncio.run(run(chime))
    assert publisher_state == "connected" and viewer_state == "connected"
    assert len(publisher.allocations) == 1 and publisher.allocations[0].stream_id == sources[0].stream_id
    assert sources[0].attendee_id == publisher.attendee_id and sources[0].media_type == 2
    assert publisher.index is None or not any(s.attendee_id == publisher.attendee_id for s in publisher.index.sources)
    assert len(viewer.tracks) == 1 and viewer.tracks[0].track_label.startswith("v_")
    assert len(viewer.video) == 1, viewer.video
    received = next(iter(viewer.video.values()))
    # 15 fps for about 5 s; the first key frame needs a PLI round trip.
    print("viewer received", received)
    assert received["frames"] >= 40, received
    assert (received["width"], received["height"]) == (320, 180), received
    assert abs(received["u"] - 54) < 12 and abs(received["v"] - 34) < 12, received
