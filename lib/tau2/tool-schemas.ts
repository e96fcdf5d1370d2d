/**
 * The function-tool schemas tau2-bench v0.2.0 sends for the airline and telecom domains, exactly as it
 * derives them: `Tool.openai_schema` — the description is the docstring's short description, then a blank
 * line and its long description (docstring_parser, Google style); the parameters are pydantic 2.10's
 * `create_model("parameters", …).model_json_schema()` of the method's signature (keys sorted, property order
 * kept, argument descriptions from the docstring's Args section, models and enums under $defs). In the
 * tools' upstream order. Data only: the worker sends them, the launch check measures the telecom user's.
 */
import type { ToolSchema } from "../../worker/engine/io";

/** The 14 airline agent tools (AirlineTools). */
export const AIRLINE_TOOL_SCHEMAS: ToolSchema[] = [
  {
    "type": "function",
    "function": {
      "name": "book_reservation",
      "description": "Book a reservation.",
      "parameters": {
        "$defs": {
          "FlightInfo": {
            "properties": {
              "flight_number": {
                "description": "Flight number, such as 'HAT001'.",
                "title": "Flight Number",
                "type": "string"
              },
              "date": {
                "description": "The date for the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.",
                "title": "Date",
                "type": "string"
              }
            },
            "required": [
              "flight_number",
              "date"
            ],
            "title": "FlightInfo",
            "type": "object"
          },
          "Passenger": {
            "properties": {
              "first_name": {
                "description": "Passenger's first name",
                "title": "First Name",
                "type": "string"
              },
              "last_name": {
                "description": "Passenger's last name",
                "title": "Last Name",
                "type": "string"
              },
              "dob": {
                "description": "Date of birth in YYYY-MM-DD format",
                "title": "Dob",
                "type": "string"
              }
            },
            "required": [
              "first_name",
              "last_name",
              "dob"
            ],
            "title": "Passenger",
            "type": "object"
          },
          "Payment": {
            "properties": {
              "payment_id": {
                "description": "Unique identifier for the payment",
                "title": "Payment Id",
                "type": "string"
              },
              "amount": {
                "description": "Payment amount in dollars",
                "title": "Amount",
                "type": "integer"
              }
            },
            "required": [
              "payment_id",
              "amount"
            ],
            "title": "Payment",
            "type": "object"
          }
        },
        "properties": {
          "user_id": {
            "description": "The ID of the user to book the reservation such as 'sara_doe_496'`.",
            "title": "User Id",
            "type": "string"
          },
          "origin": {
            "description": "The IATA code for the origin city such as 'SFO'.",
            "title": "Origin",
            "type": "string"
          },
          "destination": {
            "description": "The IATA code for the destination city such as 'JFK'.",
            "title": "Destination",
            "type": "string"
          },
          "flight_type": {
            "description": "The type of flight such as 'one_way' or 'round_trip'.",
            "enum": [
              "round_trip",
              "one_way"
            ],
            "title": "Flight Type",
            "type": "string"
          },
          "cabin": {
            "description": "The cabin class such as 'basic_economy', 'economy', or 'business'.",
            "enum": [
              "business",
              "economy",
              "basic_economy"
            ],
            "title": "Cabin",
            "type": "string"
          },
          "flights": {
            "description": "An array of objects containing details about each piece of flight.",
            "items": {
              "anyOf": [
                {
                  "$ref": "#/$defs/FlightInfo"
                },
                {
                  "additionalProperties": true,
                  "type": "object"
                }
              ]
            },
            "title": "Flights",
            "type": "array"
          },
          "passengers": {
            "description": "An array of objects containing details about each passenger.",
            "items": {
              "anyOf": [
                {
                  "$ref": "#/$defs/Passenger"
                },
                {
                  "additionalProperties": true,
                  "type": "object"
                }
              ]
            },
            "title": "Passengers",
            "type": "array"
          },
          "payment_methods": {
            "description": "An array of objects containing details about each payment method.",
            "items": {
              "anyOf": [
                {
                  "$ref": "#/$defs/Payment"
                },
                {
                  "additionalProperties": true,
                  "type": "object"
                }
              ]
            },
            "title": "Payment Methods",
            "type": "array"
          },
          "total_baggages": {
            "description": "The total number of baggage items to book the reservation.",
            "title": "Total Baggages",
            "type": "integer"
          },
          "nonfree_baggages": {
            "description": "The number of non-free baggage items to book the reservation.",
            "title": "Nonfree Baggages",
            "type": "integer"
          },
          "insurance": {
            "description": "Whether the reservation has insurance.",
            "enum": [
              "yes",
              "no"
            ],
            "title": "Insurance",
            "type": "string"
          }
        },
        "required": [
          "user_id",
          "origin",
          "destination",
          "flight_type",
          "cabin",
          "flights",
          "passengers",
          "payment_methods",
          "total_baggages",
          "nonfree_baggages",
          "insurance"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "calculate",
      "description": "Calculate the result of a mathematical expression.",
      "parameters": {
        "properties": {
          "expression": {
            "description": "The mathematical expression to calculate, such as '2 + 2'. The expression can contain numbers, operators (+, -, *, /), parentheses, and spaces.",
            "title": "Expression",
            "type": "string"
          }
        },
        "required": [
          "expression"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "cancel_reservation",
      "description": "Cancel the whole reservation.",
      "parameters": {
        "properties": {
          "reservation_id": {
            "description": "The reservation ID, such as 'ZFA04Y'.",
            "title": "Reservation Id",
            "type": "string"
          }
        },
        "required": [
          "reservation_id"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "get_reservation_details",
      "description": "Get the details of a reservation.",
      "parameters": {
        "properties": {
          "reservation_id": {
            "description": "The reservation ID, such as '8JX2WO'.",
            "title": "Reservation Id",
            "type": "string"
          }
        },
        "required": [
          "reservation_id"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "get_user_details",
      "description": "Get the details of a user, including their reservations.",
      "parameters": {
        "properties": {
          "user_id": {
            "description": "The user ID, such as 'sara_doe_496'.",
            "title": "User Id",
            "type": "string"
          }
        },
        "required": [
          "user_id"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "list_all_airports",
      "description": "Returns a list of all available airports.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "search_direct_flight",
      "description": "Search for direct flights between two cities on a specific date.",
      "parameters": {
        "properties": {
          "origin": {
            "description": "The origin city airport in three letters, such as 'JFK'.",
            "title": "Origin",
            "type": "string"
          },
          "destination": {
            "description": "The destination city airport in three letters, such as 'LAX'.",
            "title": "Destination",
            "type": "string"
          },
          "date": {
            "description": "The date of the flight in the format 'YYYY-MM-DD', such as '2024-01-01'.",
            "title": "Date",
            "type": "string"
          }
        },
        "required": [
          "origin",
          "destination",
          "date"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "search_onestop_flight",
      "description": "Search for one-stop flights between two cities on a specific date.",
      "parameters": {
        "properties": {
          "origin": {
            "description": "The origin city airport in three letters, such as 'JFK'.",
            "title": "Origin",
            "type": "string"
          },
          "destination": {
            "description": "The destination city airport in three letters, such as 'LAX'.",
            "title": "Destination",
            "type": "string"
          },
          "date": {
            "description": "The date of the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.",
            "title": "Date",
            "type": "string"
          }
        },
        "required": [
          "origin",
          "destination",
          "date"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "send_certificate",
      "description": "Send a certificate to a user. Be careful!",
      "parameters": {
        "properties": {
          "user_id": {
            "description": "The ID of the user to book the reservation, such as 'sara_doe_496'.",
            "title": "User Id",
            "type": "string"
          },
          "amount": {
            "description": "The amount of the certificate to send.",
            "title": "Amount",
            "type": "integer"
          }
        },
        "required": [
          "user_id",
          "amount"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "transfer_to_human_agents",
      "description": "Transfer the user to a human agent, with a summary of the user's issue.\n\nOnly transfer if\n -  the user explicitly asks for a human agent\n -  given the policy and the available tools, you cannot solve the user's issue.",
      "parameters": {
        "properties": {
          "summary": {
            "description": "A summary of the user's issue.",
            "title": "Summary",
            "type": "string"
          }
        },
        "required": [
          "summary"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "update_reservation_baggages",
      "description": "Update the baggage information of a reservation.",
      "parameters": {
        "properties": {
          "reservation_id": {
            "description": "The reservation ID, such as 'ZFA04Y'",
            "title": "Reservation Id",
            "type": "string"
          },
          "total_baggages": {
            "description": "The updated total number of baggage items included in the reservation.",
            "title": "Total Baggages",
            "type": "integer"
          },
          "nonfree_baggages": {
            "description": "The updated number of non-free baggage items included in the reservation.",
            "title": "Nonfree Baggages",
            "type": "integer"
          },
          "payment_id": {
            "description": "The payment id stored in user profile, such as 'credit_card_7815826', 'gift_card_7815826', 'certificate_7815826'.",
            "title": "Payment Id",
            "type": "string"
          }
        },
        "required": [
          "reservation_id",
          "total_baggages",
          "nonfree_baggages",
          "payment_id"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "update_reservation_flights",
      "description": "Update the flight information of a reservation.",
      "parameters": {
        "$defs": {
          "FlightInfo": {
            "properties": {
              "flight_number": {
                "description": "Flight number, such as 'HAT001'.",
                "title": "Flight Number",
                "type": "string"
              },
              "date": {
                "description": "The date for the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.",
                "title": "Date",
                "type": "string"
              }
            },
            "required": [
              "flight_number",
              "date"
            ],
            "title": "FlightInfo",
            "type": "object"
          }
        },
        "properties": {
          "reservation_id": {
            "description": "The reservation ID, such as 'ZFA04Y'.",
            "title": "Reservation Id",
            "type": "string"
          },
          "cabin": {
            "description": "The cabin class of the reservation",
            "enum": [
              "business",
              "economy",
              "basic_economy"
            ],
            "title": "Cabin",
            "type": "string"
          },
          "flights": {
            "description": "An array of objects containing details about each piece of flight in the ENTIRE new reservation. Even if the a flight segment is not changed, it should still be included in the array.",
            "items": {
              "anyOf": [
                {
                  "$ref": "#/$defs/FlightInfo"
                },
                {
                  "additionalProperties": true,
                  "type": "object"
                }
              ]
            },
            "title": "Flights",
            "type": "array"
          },
          "payment_id": {
            "description": "The payment id stored in user profile, such as 'credit_card_7815826', 'gift_card_7815826', 'certificate_7815826'.",
            "title": "Payment Id",
            "type": "string"
          }
        },
        "required": [
          "reservation_id",
          "cabin",
          "flights",
          "payment_id"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "update_reservation_passengers",
      "description": "Update the passenger information of a reservation.",
      "parameters": {
        "$defs": {
          "Passenger": {
            "properties": {
              "first_name": {
                "description": "Passenger's first name",
                "title": "First Name",
                "type": "string"
              },
              "last_name": {
                "description": "Passenger's last name",
                "title": "Last Name",
                "type": "string"
              },
              "dob": {
                "description": "Date of birth in YYYY-MM-DD format",
                "title": "Dob",
                "type": "string"
              }
            },
            "required": [
              "first_name",
              "last_name",
              "dob"
            ],
            "title": "Passenger",
            "type": "object"
          }
        },
        "properties": {
          "reservation_id": {
            "description": "The reservation ID, such as 'ZFA04Y'.",
            "title": "Reservation Id",
            "type": "string"
          },
          "passengers": {
            "description": "An array of objects containing details about each passenger.",
            "items": {
              "anyOf": [
                {
                  "$ref": "#/$defs/Passenger"
                },
                {
                  "additionalProperties": true,
                  "type": "object"
                }
              ]
            },
            "title": "Passengers",
            "type": "array"
          }
        },
        "required": [
          "reservation_id",
          "passengers"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "get_flight_status",
      "description": "Get the status of a flight.",
      "parameters": {
        "properties": {
          "flight_number": {
            "description": "The flight number.",
            "title": "Flight Number",
            "type": "string"
          },
          "date": {
            "description": "The date of the flight.",
            "title": "Date",
            "type": "string"
          }
        },
        "required": [
          "flight_number",
          "date"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  }
];

/** The 13 telecom agent tools (TelecomTools). */
export const TELECOM_TOOL_SCHEMAS: ToolSchema[] = [
  {
    "type": "function",
    "function": {
      "name": "get_customer_by_phone",
      "description": "Finds a customer by their primary contact or line phone number.",
      "parameters": {
        "properties": {
          "phone_number": {
            "description": "The phone number to search for.",
            "title": "Phone Number",
            "type": "string"
          }
        },
        "required": [
          "phone_number"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "get_customer_by_id",
      "description": "Retrieves a customer directly by their unique ID.",
      "parameters": {
        "properties": {
          "customer_id": {
            "description": "The unique identifier of the customer.",
            "title": "Customer Id",
            "type": "string"
          }
        },
        "required": [
          "customer_id"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "get_customer_by_name",
      "description": "Searches for customers by name and DOB. May return multiple matches if names are similar,\n\nDOB helps disambiguate.",
      "parameters": {
        "properties": {
          "full_name": {
            "description": "The full name of the customer.",
            "title": "Full Name",
            "type": "string"
          },
          "dob": {
            "description": "Date of birth for verification, in the format YYYY-MM-DD.",
            "title": "Dob",
            "type": "string"
          }
        },
        "required": [
          "full_name",
          "dob"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "get_details_by_id",
      "description": "Retrieves the details for a given ID.\n\nThe ID must be a valid ID for a Customer, Line, Device, Bill, or Plan.",
      "parameters": {
        "properties": {
          "id": {
            "description": "The ID of the object to retrieve.",
            "title": "Id",
            "type": "string"
          }
        },
        "required": [
          "id"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "suspend_line",
      "description": "Suspends a specific line (max 6 months).\n\nChecks: Line status must be Active.\nLogic: Sets line status to Suspended, records suspension_start_date.",
      "parameters": {
        "properties": {
          "customer_id": {
            "description": "ID of the customer who owns the line.",
            "title": "Customer Id",
            "type": "string"
          },
          "line_id": {
            "description": "ID of the line to suspend.",
            "title": "Line Id",
            "type": "string"
          },
          "reason": {
            "description": "Reason for suspension.",
            "title": "Reason",
            "type": "string"
          }
        },
        "required": [
          "customer_id",
          "line_id",
          "reason"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "resume_line",
      "description": "Resumes a suspended line.\n\nChecks: Line status must be Suspended or Pending Activation.\nLogic: Sets line status to Active, clears suspension_start_date.",
      "parameters": {
        "properties": {
          "customer_id": {
            "description": "ID of the customer who owns the line.",
            "title": "Customer Id",
            "type": "string"
          },
          "line_id": {
            "description": "ID of the line to resume.",
            "title": "Line Id",
            "type": "string"
          }
        },
        "required": [
          "customer_id",
          "line_id"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "get_bills_for_customer",
      "description": "Retrieves a list of the customer's bills, most recent first.",
      "parameters": {
        "properties": {
          "customer_id": {
            "description": "ID of the customer.",
            "title": "Customer Id",
            "type": "string"
          },
          "limit": {
            "default": 12,
            "description": "Maximum number of bills to return.",
            "title": "Limit",
            "type": "integer"
          }
        },
        "required": [
          "customer_id"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "send_payment_request",
      "description": "Sends a payment request to the customer for a specific bill.\n\nChecks:\n    - Customer exists\n    - Bill exists and belongs to the customer\n    - No other bills are already awaiting payment for this customer\nLogic: Sets bill status to AWAITING_PAYMENT and notifies customer.\nWarning: This method does not check if the bill is already PAID.\nAlways check the bill status before calling this method.",
      "parameters": {
        "properties": {
          "customer_id": {
            "description": "ID of the customer who owns the bill.",
            "title": "Customer Id",
            "type": "string"
          },
          "bill_id": {
            "description": "ID of the bill to send payment request for.",
            "title": "Bill Id",
            "type": "string"
          }
        },
        "required": [
          "customer_id",
          "bill_id"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "get_data_usage",
      "description": "Retrieves current billing cycle data usage for a line, including data\n\nrefueling amount, data limit, and cycle end date.",
      "parameters": {
        "properties": {
          "customer_id": {
            "description": "ID of the customer who owns the line.",
            "title": "Customer Id",
            "type": "string"
          },
          "line_id": {
            "description": "ID of the line to check usage for.",
            "title": "Line Id",
            "type": "string"
          }
        },
        "required": [
          "customer_id",
          "line_id"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "enable_roaming",
      "description": "Enables international roaming on a line.",
      "parameters": {
        "properties": {
          "customer_id": {
            "description": "ID of the customer who owns the line.",
            "title": "Customer Id",
            "type": "string"
          },
          "line_id": {
            "description": "ID of the line to enable roaming for.",
            "title": "Line Id",
            "type": "string"
          }
        },
        "required": [
          "customer_id",
          "line_id"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "disable_roaming",
      "description": "Disables international roaming on a line.",
      "parameters": {
        "properties": {
          "customer_id": {
            "description": "ID of the customer who owns the line.",
            "title": "Customer Id",
            "type": "string"
          },
          "line_id": {
            "description": "ID of the line to disable roaming for.",
            "title": "Line Id",
            "type": "string"
          }
        },
        "required": [
          "customer_id",
          "line_id"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "transfer_to_human_agents",
      "description": "Transfer the user to a human agent, with a summary of the user's issue.\n\nOnly transfer if\n -  the user explicitly asks for a human agent\n -  given the policy and the available tools, you cannot solve the user's issue.",
      "parameters": {
        "properties": {
          "summary": {
            "description": "A summary of the user's issue.",
            "title": "Summary",
            "type": "string"
          }
        },
        "required": [
          "summary"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "refuel_data",
      "description": "Refuels data for a specific line, adding to the customer's bill.\n\nChecks: Line status must be Active, Customer owns the line.\nLogic: Adds data to the line and charges customer based on the plan's refueling rate.",
      "parameters": {
        "properties": {
          "customer_id": {
            "description": "ID of the customer who owns the line.",
            "title": "Customer Id",
            "type": "string"
          },
          "line_id": {
            "description": "ID of the line to refuel data for.",
            "title": "Line Id",
            "type": "string"
          },
          "gb_amount": {
            "description": "Amount of data to add in gigabytes.",
            "title": "Gb Amount",
            "type": "number"
          }
        },
        "required": [
          "customer_id",
          "line_id",
          "gb_amount"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  }
];

/** The 30 tools the telecom user has on their phone (TelecomUserTools). */
export const TELECOM_USER_TOOL_SCHEMAS: ToolSchema[] = [
  {
    "type": "function",
    "function": {
      "name": "check_status_bar",
      "description": "Shows what icons are currently visible in your phone's status bar (the area at the top of the screen). Displays network signal strength, mobile data status (enabled, disabled, data saver), Wi-Fi status, and battery level.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "check_network_status",
      "description": "Checks your phone's connection status to cellular networks and Wi-Fi. Shows airplane mode status, signal strength, network type, whether mobile data is enabled, and whether data roaming is enabled.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "check_network_mode_preference",
      "description": "Shows the current network mode preference.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "set_network_mode_preference",
      "description": "Changes the type of cellular network your phone prefers to connect to (e.g., 5G, LTE/4G, 3G). Higher-speed networks (LTE/5G) provide faster data but may use more battery.",
      "parameters": {
        "$defs": {
          "NetworkModePreference": {
            "enum": [
              "4g_5g_preferred",
              "4g_only",
              "3g_only",
              "2g_only"
            ],
            "title": "NetworkModePreference",
            "type": "string"
          }
        },
        "properties": {
          "mode": {
            "anyOf": [
              {
                "$ref": "#/$defs/NetworkModePreference"
              },
              {
                "type": "string"
              }
            ],
            "title": "Mode"
          }
        },
        "required": [
          "mode"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "run_speed_test",
      "description": "Measures your current internet connection speed (download speed). Provides information about connection quality and what activities it can support.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "toggle_airplane_mode",
      "description": "Toggles Airplane Mode ON or OFF. When ON, it disconnects all wireless communications including cellular, Wi-Fi, and Bluetooth.\n\nReturns the new state of airplane_mode.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "check_sim_status",
      "description": "Checks if your SIM card is working correctly and displays its current status. Shows if the SIM is active, missing, or locked with a PIN or PUK code.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "reseat_sim_card",
      "description": "Simulates removing and reinserting your SIM card. This can help resolve recognition issues.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "toggle_data",
      "description": "Toggles your phone's mobile data connection ON or OFF. Controls whether your phone can use cellular data for internet access when Wi-Fi is unavailable.\n\nReturns the new data connection status.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "toggle_roaming",
      "description": "Toggles Data Roaming ON or OFF. When ON, your phone can use data networks in areas outside your carrier's coverage.\n\nReturns the new data roaming status.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "check_data_restriction_status",
      "description": "Checks if your phone has any data-limiting features active. Shows if Data Saver mode is on.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "toggle_data_saver_mode",
      "description": "Toggles Data Saver mode ON or OFF. When ON, it reduces data usage, which may affect data speed.\n\nReturns the new data saver mode status.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "check_apn_settings",
      "description": "Checks the technical APN settings your phone uses to connect to your carrier's mobile data network. Shows current APN name and MMSC URL for picture messaging.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "set_apn_settings",
      "description": "Sets the APN settings for the phone.",
      "parameters": {
        "$defs": {
          "APNNames": {
            "enum": [
              "internet",
              "broken"
            ],
            "title": "APNNames",
            "type": "string"
          },
          "APNSettings": {
            "properties": {
              "apn_name": {
                "$ref": "#/$defs/APNNames",
                "default": "internet",
                "description": "The name identifier for the APN connection."
              },
              "reset_at_reboot": {
                "default": false,
                "description": "Whether the APN settings will be reset at the next reboot.",
                "title": "Reset At Reboot",
                "type": "boolean"
              },
              "mms_apn": {
                "anyOf": [
                  {
                    "type": "string"
                  },
                  {
                    "type": "null"
                  }
                ],
                "default": "mms",
                "description": "Specific APN name used for MMS traffic, if different from general data.",
                "title": "Mms Apn"
              },
              "mmsc_url": {
                "anyOf": [
                  {
                    "type": "string"
                  },
                  {
                    "type": "null"
                  }
                ],
                "default": "http://mms.carrier.com/mms/wapenc",
                "description": "The URL of the Multimedia Messaging Service Center (MMSC). Crucial for MMS.",
                "title": "Mmsc Url"
              },
              "mms_proxy": {
                "anyOf": [
                  {
                    "type": "string"
                  },
                  {
                    "type": "null"
                  }
                ],
                "default": null,
                "description": "The proxy server address required for MMS traffic on some networks.",
                "title": "Mms Proxy"
              },
              "mms_port": {
                "anyOf": [
                  {
                    "type": "integer"
                  },
                  {
                    "type": "null"
                  }
                ],
                "default": null,
                "description": "The proxy server port required for MMS traffic on some networks.",
                "title": "Mms Port"
              }
            },
            "title": "APNSettings",
            "type": "object"
          }
        },
        "properties": {
          "apn_settings": {
            "anyOf": [
              {
                "$ref": "#/$defs/APNSettings"
              },
              {
                "additionalProperties": true,
                "type": "object"
              }
            ],
            "title": "Apn Settings"
          }
        },
        "required": [
          "apn_settings"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "reset_apn_settings",
      "description": "Resets your APN settings to the default settings.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "check_wifi_status",
      "description": "Checks your Wi-Fi connection status. Shows if Wi-Fi is turned on, which network you're connected to (if any), and the signal strength.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "toggle_wifi",
      "description": "Toggles your phone's Wi-Fi radio ON or OFF. Controls whether your phone can discover and connect to wireless networks for internet access.\n\nReturns the new Wi-Fi status.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "check_wifi_calling_status",
      "description": "Checks if Wi-Fi Calling is enabled on your device. This feature allows you to make and receive calls over a Wi-Fi network instead of using the cellular network.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "toggle_wifi_calling",
      "description": "Toggles Wi-Fi Calling ON or OFF. This feature allows you to make and receive calls over Wi-Fi instead of the cellular network, which can help in areas with weak cellular signal.\n\nReturns the new Wi-Fi Calling status.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "check_vpn_status",
      "description": "Checks if you're using a VPN (Virtual Private Network) connection. Shows if a VPN is active, connected, and displays any available connection details.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "connect_vpn",
      "description": "Connects to your VPN (Virtual Private Network).",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "disconnect_vpn",
      "description": "Disconnects any active VPN (Virtual Private Network) connection. Stops routing your internet traffic through a VPN server, which might affect connection speed or access to content.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "check_installed_apps",
      "description": "Returns the name of all installed apps on the phone.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "check_app_status",
      "description": "Checks detailed information about a specific app. Shows its permissions and background data usage settings.",
      "parameters": {
        "properties": {
          "app_name": {
            "title": "App Name",
            "type": "string"
          }
        },
        "required": [
          "app_name"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "check_app_permissions",
      "description": "Checks what permissions a specific app currently has. Shows if the app has access to features like storage, camera, location, etc.",
      "parameters": {
        "properties": {
          "app_name": {
            "title": "App Name",
            "type": "string"
          }
        },
        "required": [
          "app_name"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "grant_app_permission",
      "description": "Gives a specific permission to an app (like access to storage, camera, or location). Required for some app functions to work properly.",
      "parameters": {
        "properties": {
          "app_name": {
            "description": "The name of the app to grant the permission to.",
            "title": "App Name",
            "type": "string"
          },
          "permission": {
            "description": "The permission to grant, should be lowercase.",
            "title": "Permission",
            "type": "string"
          }
        },
        "required": [
          "app_name",
          "permission"
        ],
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "can_send_mms",
      "description": "Checks if the default messaging app can send MMS messages.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "reboot_device",
      "description": "Restarts your phone completely. This can help resolve many temporary software glitches by refreshing all running services and connections.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "check_payment_request",
      "description": "Checks if the agent has sent you a payment request.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "make_payment",
      "description": "Makes a payment for the bill that the agent has sent you.",
      "parameters": {
        "properties": {},
        "title": "parameters",
        "type": "object"
      }
    }
  }
];
