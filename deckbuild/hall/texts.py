"""What the hall server says to people, in Spanish, in one place: the reasons it gives when it
refuses a request (plain text, never HTML, never echoing what was sent). The code decides; this
module holds the words."""

# a body or a query that does not meet its rules (messages.py: 400)
BODY_TOO_LONG = "cuerpo demasiado largo (máximo {limit} bytes)"
NOT_JSON = "el cuerpo no es JSON válido"
NOT_AN_OBJECT = "se esperaba un objeto JSON"
NOT_AN_INTEGER = "«{key}» debe ser un entero entre {low} y {high}"
NOT_A_FLAG = "«{key}» debe ser true o false"
NOT_HEX128 = {  # field → why its 32 hex digits were refused
    "token": "ficha no válida (32 cifras hexadecimales)",
    "ticket": "ficha de admisión no válida (32 cifras hexadecimales)",
    "device": "identificador de dispositivo no válido (32 cifras hexadecimales)",
}
NOT_LISTED = {"polls": "encuesta desconocida", "exercises": "ejercicio desconocido"}  # live.json's table
