await goto_newticket()
await create_ticket(field_summary="Password reset email never arrives", field_type="defect", field_priority="major",
                    field_milestone="1.1", field_component="backend")
result = "done"
