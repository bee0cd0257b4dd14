"""What the hall server says to people, in Spanish, in one place: the reasons it gives when it
refuses a request (plain text, never HTML, never echoing what was sent), for a body's rules
(messages.py) and for the rest (app.py, cors.py). The code decides; this module holds the words."""

# a body or a query that does not meet its rules (messages.py: 400)
BODY_TOO_LONG = "cuerpo demasiado largo (máximo {limit} bytes)"
NOT_JSON = "el cuerpo no es JSON válido"
NOT_AN_OBJECT = "se esperaba un objeto JSON"
NOT_AN_INTEGER = "«{key}» debe ser un entero entre {low} y {high}"
NOT_A_FLAG = "«{key}» debe ser true o false"
NOT_HEX128 = "«{key}» debe tener 32 cifras hexadecimales en minúscula"  # a device id, a token, a ticket
NOT_LISTED = {"polls": "encuesta desconocida", "exercises": "ejercicio desconocido"}  # live.json's table

# a request the hall refuses before or besides its body's rules (app.py, cors.py)
HALL_FULL = "La sala está llena: el servidor no admite más conexiones. Vuelva a intentarlo en un momento."
STORE_FULL = (  # 503: the disk is full (store.StoreFull); nothing was kept
    "La sala no puede guardar nada: el disco del servidor está lleno. Vuelva a intentarlo en un momento."
)
STORE_UNAVAILABLE = "La sala no puede guardar nada en este momento: vuelva a intentarlo en unos segundos."
NOT_ADMITTED = (
    "Sin admisión en esta ronda: responden solo los dispositivos conectados a la sala cuando se "
    "mostró la encuesta, una vez cada uno."
)
NOT_ADMITTED_EXERCISE = (
    "Sin admisión: este dispositivo no tiene la ficha de la sala para este ejercicio (la sala la "
    "da a cada dispositivo conectado, hasta un máximo por red); su solución no se cuenta."
)
TOO_MANY_REQUESTS = "Demasiadas peticiones: espere un momento."
ALREADY_ANSWERED = "Este dispositivo ya respondió a esta encuesta."
REQUEST_TOO_LONG = "Demasiado largo."  # 413: past messages.MAX_BODY, unread
BODY_TOO_SLOW = "El envío tardó demasiado: vuelva a intentarlo."  # 408: a body slower than the header timeout
PRESENTER_ONLY = "Solo quien presenta puede hacer esto."
TOO_MANY_STREAMS_FOR_DEVICE = "Demasiadas conexiones abiertas desde este dispositivo."
TOO_MANY_STREAMS_FOR_ADDRESS = "Demasiadas conexiones abiertas desde esta dirección."
TOO_MANY_CONNECTIONS_FOR_ADDRESS = (  # connections.py: a TCP connection beyond the address's bound
    "Demasiadas conexiones abiertas desde esta dirección: cierre alguna pestaña o espere un momento."
)
JSON_EXPECTED = "Se esperaba un cuerpo JSON (Content-Type: application/json)."
HALL_ONLY = "Aquí solo está la sala en vivo: la presentación está en otra dirección."
ORIGIN_REFUSED = "Origen no permitido."
HOST_REFUSED = (  # 421: a Host that is none of the hall's names (hosts.py)
    "Esta sala no responde a ese nombre: ábrala con la dirección que da quien presenta."
)
