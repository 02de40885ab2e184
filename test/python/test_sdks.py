"""The newest Azure Storage SDKs for Python against a running emulator (the python-sdks tier).

Run by test/python/run.mjs, which installs the newest published SDKs (scripts/pythonSdks.sh),
starts the emulator (test/python/serve.mjs) and passes its connection string in
AZURE_STORAGE_CONNECTION_STRING. The SDKs run with their defaults, so each sends its own newest
x-ms-version; the versions tested and the x-ms-version each sent are printed before and after the
tests.
"""

import hashlib
import importlib.metadata
import os
import uuid
from datetime import datetime, timezone

import pytest
from azure.data.tables import EdmType, EntityProperty, TableServiceClient, TransactionOperation
from azure.storage.blob import BlobServiceClient, ContentSettings
from azure.storage.queue import QueueServiceClient

MIB = 1024 * 1024
PACKAGES = ["azure-storage-blob", "azure-storage-queue", "azure-data-tables", "azure-core"]

# x-ms-version of every request each SDK sent, recorded by a request hook on its clients.
SENT_VERSIONS: dict[str, set[str]] = {"blob": set(), "queue": set(), "table": set()}


def _recorder(service):
    def hook(request):
        version = request.http_request.headers.get("x-ms-version")
        if version:
            SENT_VERSIONS[service].add(version)

    return hook


@pytest.fixture(scope="module", autouse=True)
def report_versions(request):
    """Writes the SDK versions before the tests and the x-ms-versions they sent after them."""
    plugins = request.config.pluginmanager
    terminal, capture = plugins.get_plugin("terminalreporter"), plugins.get_plugin("capturemanager")

    def say(line):
        # Straight to the terminal, past pytest's output capture, so a passing run shows it too.
        if terminal is None or capture is None:
            print(line)
            return
        with capture.global_and_fixture_disabled():
            terminal.write_line(line)

    say("python-sdks: " + ", ".join(f"{p} {importlib.metadata.version(p)}" for p in PACKAGES))
    yield
    sent = ", ".join(f"{s} {'/'.join(sorted(v)) or '(none)'}" for s, v in SENT_VERSIONS.items())
    say(f"\npython-sdks: x-ms-version sent: {sent}")  # after the progress dots


@pytest.fixture(scope="module")
def connection_string():
    value = os.environ.get("AZURE_STORAGE_CONNECTION_STRING")
    if not value:
        pytest.fail("AZURE_STORAGE_CONNECTION_STRING is not set (run test/python/run.mjs)")
    return value


def unique(prefix):
    return f"{prefix}{uuid.uuid4().hex[:12]}"


def test_blob_upload_list_download(connection_string):
    # Single puts up to 4 MiB, 4 MiB blocks above: the large blob goes through Put Block + Put Block List.
    service = BlobServiceClient.from_connection_string(
        connection_string,
        max_single_put_size=4 * MIB,
        max_block_size=4 * MIB,
        raw_request_hook=_recorder("blob"),
    )
    container = service.create_container(unique("pysdk"))
    try:
        small = b"hello from python\n"
        doc = b'{"kind": "metadata"}'
        large = os.urandom(9 * MIB + 123)
        container.upload_blob("a/small.txt", small)
        container.upload_blob(
            "b/doc.json",
            doc,
            metadata={"origin": "python-sdks", "purpose": "tier"},
            content_settings=ContentSettings(content_type="application/json", cache_control="no-cache"),
        )
        container.upload_blob("c/large.bin", large, max_concurrency=3)

        # The large upload was staged as blocks.
        committed, uncommitted = container.get_blob_client("c/large.bin").get_block_list("committed")
        assert [b.size for b in committed] == [4 * MIB, 4 * MIB, MIB + 123]
        assert uncommitted == []

        listed = {b.name: b for b in container.list_blobs(include=["metadata"])}
        assert sorted(listed) == ["a/small.txt", "b/doc.json", "c/large.bin"]
        assert listed["a/small.txt"].size == len(small)
        assert listed["c/large.bin"].size == len(large)
        assert listed["b/doc.json"].metadata == {"origin": "python-sdks", "purpose": "tier"}
        assert listed["b/doc.json"].content_settings.content_type == "application/json"
        assert [b.name for b in container.list_blobs(name_starts_with="b/")] == ["b/doc.json"]
        assert sorted(p.name for p in container.walk_blobs(delimiter="/")) == ["a/", "b/", "c/"]

        assert container.download_blob("a/small.txt").readall() == small
        downloaded = container.download_blob("b/doc.json")
        assert downloaded.readall() == doc
        assert downloaded.properties.metadata == {"origin": "python-sdks", "purpose": "tier"}
        assert downloaded.properties.content_settings.content_type == "application/json"
        assert downloaded.properties.content_settings.cache_control == "no-cache"
        # Downloaded in ranged chunks, in parallel.
        back = container.download_blob("c/large.bin", max_concurrency=4).readall()
        assert len(back) == len(large)
        assert hashlib.sha256(back).hexdigest() == hashlib.sha256(large).hexdigest()
        assert container.download_blob("c/large.bin", offset=5 * MIB, length=1000).readall() == large[5 * MIB : 5 * MIB + 1000]
    finally:
        container.delete_container()


def test_queue_send_peek_receive_delete(connection_string):
    service = QueueServiceClient.from_connection_string(connection_string, raw_request_hook=_recorder("queue"))
    queue = service.create_queue(unique("pysdk"))
    try:
        texts = ["first", "second: ünïcödé", "third " + "x" * 1000]
        for text in texts:
            queue.send_message(text)

        assert queue.get_queue_properties().approximate_message_count == 3
        peeked = queue.peek_messages(max_messages=3)
        assert [m.content for m in peeked] == texts
        assert all(m.dequeue_count == 0 for m in peeked)

        received = list(queue.receive_messages(messages_per_page=3, visibility_timeout=30))
        assert [m.content for m in received] == texts
        assert all(m.dequeue_count == 1 and m.pop_receipt for m in received)
        # Received messages are invisible: nothing to peek, but still counted.
        assert queue.peek_messages(max_messages=3) == []
        assert queue.get_queue_properties().approximate_message_count == 3

        for message in received:
            queue.delete_message(message)
        assert queue.get_queue_properties().approximate_message_count == 0
        assert list(queue.receive_messages(visibility_timeout=1)) == []
    finally:
        queue.delete_queue()


def test_table_transaction_and_query(connection_string):
    service = TableServiceClient.from_connection_string(connection_string, raw_request_hook=_recorder("table"))
    table = service.create_table(unique("pysdk"))
    try:
        pk = "python"
        when = datetime(2024, 2, 29, 13, 14, 15, 123456, tzinfo=timezone.utc)
        entities = [
            {
                "PartitionKey": pk,
                "RowKey": f"row{i}",
                "Count": i * 10,  # Edm.Int32
                "Ratio": i + 0.25,  # Edm.Double
                "Enabled": i % 2 == 0,  # Edm.Boolean
                "When": when.replace(day=i + 1),  # Edm.DateTime
                "Blob": bytes([i, 0, 255, 128]) * 3,  # Edm.Binary
                "Big": EntityProperty(2**40 + i, EdmType.INT64),  # Edm.Int64, beyond 2^31
                "Name": f"entity {i}",
                "Id": uuid.UUID(int=i + 1),  # Edm.Guid
            }
            for i in range(5)
        ]
        result = table.submit_transaction([(TransactionOperation.CREATE, e) for e in entities])
        assert len(result) == len(entities)

        # Every entity reads back with every value and type as written.
        for expected in entities:
            got = table.get_entity(pk, expected["RowKey"])
            assert got["Count"] == expected["Count"] and type(got["Count"]) is int
            assert got["Ratio"] == expected["Ratio"] and type(got["Ratio"]) is float
            assert got["Enabled"] is expected["Enabled"]
            assert got["When"] == expected["When"]
            assert got["When"].tzinfo is not None
            assert got["Blob"] == expected["Blob"] and isinstance(got["Blob"], bytes)
            assert got["Big"] == expected["Big"]  # EntityProperty(value, Edm.Int64)
            assert got["Big"].value == 2**40 + int(expected["RowKey"][3:])
            assert got["Name"] == expected["Name"]
            assert got["Id"] == expected["Id"]

        # Filter with parameters, and a projection.
        found = list(
            table.query_entities(
                "PartitionKey eq @pk and Count ge @min and Enabled eq @enabled",
                parameters={"pk": pk, "min": 20, "enabled": True},
                select=["RowKey", "Count", "Big", "When"],
            )
        )
        assert [e["RowKey"] for e in found] == ["row2", "row4"]
        for e in found:
            assert set(e.keys()) == {"RowKey", "Count", "Big", "When"}
            i = int(e["RowKey"][3:])
            assert e["Count"] == i * 10
            assert e["Big"] == EntityProperty(2**40 + i, EdmType.INT64)
            assert e["When"] == when.replace(day=i + 1)

        # Filters on the Int64 (an int beyond 32 bits is sent as 1099511627778L), DateTime and Double properties.
        big = list(table.query_entities("Big gt @v", parameters={"v": 2**40 + 2}, select=["RowKey"]))
        assert sorted(e["RowKey"] for e in big) == ["row3", "row4"]
        late = list(table.query_entities("When ge @t", parameters={"t": when.replace(day=4)}, select=["RowKey"]))
        assert sorted(e["RowKey"] for e in late) == ["row3", "row4"]
        ratio = list(table.query_entities("Ratio lt 1.5", select=["RowKey"]))
        assert [e["RowKey"] for e in ratio] == ["row0", "row1"]
    finally:
        service.delete_table(table.table_name)
