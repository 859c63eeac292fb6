package dev.txnrocksdb.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The tool's JSON: strings escaped to ASCII, members and elements indented, misuse refused. */
class JsonWriterTest {
    @Test
    void stringsAreEscapedToAscii() {
        assertEquals("\"plain text\"", JsonWriter.quote("plain text"));
        assertEquals("\"\"", JsonWriter.quote(""));
        assertEquals("\"a \\\"quoted\\\" \\\\ path\"", JsonWriter.quote("a \"quoted\" \\ path"));
        assertEquals("\"\\n\\r\\t\\b\\f\"", JsonWriter.quote("\n\r\t\b\f"));
        assertEquals("\"\\u0000\\u001f\\u007f\"", JsonWriter.quote("\u0000\u001f\u007f"));
        assertEquals("\"caf\\u00e9\"", JsonWriter.quote("caf\u00e9"));
        assertEquals("\"\\u2028\\u2029\"", JsonWriter.quote("\u2028\u2029"));
        // outside the BMP: the two surrogates, as JSON writes such a character
        assertEquals("\"\\ud83d\\ude00\"", JsonWriter.quote("\uD83D\uDE00"));
        assertEquals("\"/<>&'\"", JsonWriter.quote("/<>&'"));
    }

    @Test
    void writesNestedDocumentsIndented() {
        StringBuilder out = new StringBuilder();
        new JsonWriter(out)
                .beginObject()
                .field("name", "app/0_1/counts")
                .field("count", -3)
                .field("damage", false)
                .name("none")
                .nullValue()
                .name("empty")
                .beginArray()
                .endArray()
                .name("emptyObject")
                .beginObject()
                .endObject()
                .name("offsets")
                .beginArray()
                .beginObject()
                .field("topic", "t")
                .field("offset", Long.MAX_VALUE)
                .endObject()
                .value("x")
                .value(7)
                .endArray()
                .endObject();
        assertEquals(
                String.join(
                        "\n",
                        "{",
                        "  \"name\": \"app/0_1/counts\",",
                        "  \"count\": -3,",
                        "  \"damage\": false,",
                        "  \"none\": null,",
                        "  \"empty\": [],",
                        "  \"emptyObject\": {},",
                        "  \"offsets\": [",
                        "    {",
                        "      \"topic\": \"t\",",
                        "      \"offset\": 9223372036854775807",
                        "    },",
                        "    \"x\",",
                        "    7",
                        "  ]",
                        "}",
                        ""),
                out.toString());
    }

    @Test
    void misuseIsABug() {
        assertThrows(IllegalStateException.class, () -> new JsonWriter(new StringBuilder()).name("x"));
        assertThrows(
                IllegalStateException.class,
                () -> new JsonWriter(new StringBuilder()).beginObject().value(1));
        assertThrows(
                IllegalStateException.class,
                () -> new JsonWriter(new StringBuilder()).beginObject().endArray());
        assertThrows(
                IllegalStateException.class,
                () -> new JsonWriter(new StringBuilder())
                        .beginObject()
                        .name("a")
                        .endObject());
        assertThrows(
                IllegalStateException.class,
                () -> new JsonWriter(new StringBuilder())
                        .beginArray()
                        .endArray()
                        .beginArray());
    }
}
